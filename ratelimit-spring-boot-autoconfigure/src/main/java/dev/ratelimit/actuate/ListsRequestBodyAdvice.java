package dev.ratelimit.actuate;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import jakarta.servlet.http.HttpServletRequest;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

import org.springframework.core.MethodParameter;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpInputMessage;
import org.springframework.http.converter.HttpMessageConverter;
import org.springframework.web.bind.annotation.ControllerAdvice;
import org.springframework.web.context.request.RequestAttributes;
import org.springframework.web.context.request.RequestContextHolder;
import org.springframework.web.context.request.ServletRequestAttributes;
import org.springframework.web.servlet.mvc.method.annotation.RequestBodyAdviceAdapter;

/**
 * Lets {@code POST .../ratelimits/lists/{list}} take {@code "rules": ["api", "login"]}, as the lists' contract writes
 * it: Actuator reads a write operation's body as a map of strings, which refuses a JSON array, so for these paths only
 * an array of strings is joined with commas before Actuator reads the body (the operation splits it again).
 */
@ControllerAdvice
public class ListsRequestBodyAdvice extends RequestBodyAdviceAdapter {

	private static final String HANDLER = "AbstractWebMvcEndpointHandlerMapping$OperationHandler";

	private static final JsonMapper json = JsonMapper.builder().build();

	@Override
	public boolean supports(MethodParameter parameter, Type targetType,
			Class<? extends HttpMessageConverter<?>> converterType) {
		return parameter.getContainingClass().getName().endsWith(HANDLER) && isListsWrite();
	}

	private static boolean isListsWrite() {
		RequestAttributes attributes = RequestContextHolder.getRequestAttributes();
		if (!(attributes instanceof ServletRequestAttributes servlet)) {
			return false;
		}
		HttpServletRequest request = servlet.getRequest();
		String path = request.getRequestURI();
		return "POST".equals(request.getMethod()) && (path.endsWith("/ratelimits/" + RateLimitsEndpoint.LISTS + "/allow")
				|| path.endsWith("/ratelimits/" + RateLimitsEndpoint.LISTS + "/deny"));
	}

	@Override
	public HttpInputMessage beforeBodyRead(HttpInputMessage message, MethodParameter parameter, Type targetType,
			Class<? extends HttpMessageConverter<?>> converterType) throws IOException {
		byte[] body = message.getBody().readAllBytes();
		byte[] rewritten = joinArrays(body);
		return new HttpInputMessage() {

			@Override
			public InputStream getBody() {
				return new ByteArrayInputStream(rewritten);
			}

			@Override
			public HttpHeaders getHeaders() {
				HttpHeaders headers = new HttpHeaders();
				headers.putAll(message.getHeaders());
				headers.setContentLength(rewritten.length);
				return headers;
			}

		};
	}

	/** Joins each array of strings of a JSON object with commas; anything else is left as it is for Actuator. */
	static byte[] joinArrays(byte[] body) {
		JsonNode tree;
		try {
			tree = json.readTree(body);
		}
		catch (JacksonException ex) {
			return body;
		}
		if (!(tree instanceof ObjectNode object)) {
			return body;
		}
		boolean changed = false;
		for (Map.Entry<String, JsonNode> field : new ArrayList<>(object.properties())) {
			JsonNode value = field.getValue();
			if (value.isArray()) {
				List<String> items = new ArrayList<>();
				for (JsonNode item : value) {
					if (!item.isString()) {
						return body;
					}
					items.add(item.asString());
				}
				object.put(field.getKey(), String.join(",", items));
				changed = true;
			}
		}
		return changed ? json.writeValueAsBytes(object) : body;
	}

}
